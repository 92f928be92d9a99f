// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IPartnerFundingRouter} from "../src/IPartnerFundingRouter.sol";
import {IReferralVoucherRouter} from "../src/IReferralVoucherRouter.sol";

/// Test-only reference implementations of the two published router interfaces, so the tests can
/// run the calldata and signatures the partner-service builds against a real EVM. Not audited,
/// not for deployment: the production routers come with their own issue.

contract TestToken is ERC20 {
    constructor() ERC20("Test USD", "TUSD") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }
}

contract FundingRouterHarness is IPartnerFundingRouter {
    function fund(bytes32 fundingId, address token, uint256 amount) external payable {
        if (token == address(0)) {
            require(msg.value == amount, "value must equal amount");
        } else {
            require(msg.value == 0, "no value with a token");
            require(IERC20(token).transferFrom(msg.sender, address(this), amount), "transfer failed");
        }
        emit Funded(fundingId, token, msg.sender, amount);
    }
}

contract VoucherRouterHarness is IReferralVoucherRouter {
    bytes32 private constant DOMAIN_TYPEHASH = keccak256("EIP712Domain(string name,string version)");
    bytes32 private constant VOUCHER_TYPEHASH =
        keccak256("Voucher(bytes32 id,uint256 chainId,bytes32 router,bytes32 token,bytes32 referrer,uint256 amount)");

    address public immutable operator;
    mapping(bytes32 => bool) public redeemed;

    constructor(address operator_) {
        operator = operator_;
    }

    function digest(Voucher calldata v) public pure returns (bytes32) {
        bytes32 domain = keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("XchainReferralVouchers"), keccak256("1")));
        bytes32 structHash = keccak256(abi.encode(VOUCHER_TYPEHASH, v.id, v.chainId, v.router, v.token, v.referrer, v.amount));
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    function redeem(Voucher calldata v, bytes calldata signature) external {
        require(v.chainId == block.chainid, "wrong chain");
        require(v.router == bytes32(uint256(uint160(address(this)))), "wrong router");
        require(!redeemed[v.id], "already redeemed");
        require(signature.length == 65, "bad signature length");
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 recovery = uint8(signature[64]);
        address signer = ecrecover(digest(v), recovery, r, s);
        require(signer != address(0) && signer == operator, "not signed by the operator");
        redeemed[v.id] = true;
        require(IERC20(address(uint160(uint256(v.token)))).transfer(address(uint160(uint256(v.referrer))), v.amount), "payout failed");
        emit VoucherRedeemed(v.id, v.referrer, v.token, v.amount);
    }
}
